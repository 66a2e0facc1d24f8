# iobench's filemicro_writefsync (after filebench's published description: one thread appends
# 8 KiB blocks to an empty file with an fsync after every 1,024 of them, until a count of
# fsyncs), scaled to a laptop: 256 appends per fsync, 8 fsyncs (16 MiB).
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_writefsync.f

set $iosize=8k
set $appendsperfsync=256
set $fsyncs=8

define file name=bigfile,path=/tmp,size=0,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=$iosize,instances=1
  {
    flowop appendfile name=append,filename=bigfile,fd=1,iosize=$iosize,iters=$appendsperfsync
    flowop fsync name=sync,fd=1
    flowop finishoncount name=enough,value=$fsyncs,target=sync
  }
}

run 60
