# iobench's filemicro_seqwrite (after filebench's published description: one thread appends
# 1 MiB blocks to an empty file until a count of writes), scaled to a laptop: 32 writes.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_seqwrite.f

set $iosize=1m
set $writes=32

define file name=bigfile,path=/tmp,size=0,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=$iosize,instances=1
  {
    flowop appendfile name=seqwrite,filename=bigfile,fd=1,iosize=$iosize
    flowop finishoncount name=enough,value=$writes,target=seqwrite
  }
}

run 60
