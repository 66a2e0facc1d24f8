# iobench's filemicro_rwritefsync (after filebench's published description: one thread writes
# one large file at random 8 KiB offsets, then fsyncs it, until a count of fsyncs), scaled to a
# laptop: a 32 MiB file, 512 writes per fsync, 4 fsyncs.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_rwritefsync.f

set $filesize=32m
set $iosize=8k
set $writesperfsync=512
set $fsyncs=4

define file name=bigfile,path=/tmp,size=$filesize,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=1m,instances=1
  {
    flowop write name=randwrite,filename=bigfile,fd=1,iosize=$iosize,random,iters=$writesperfsync
    flowop fsync name=sync,fd=1
    flowop finishoncount name=enough,value=$fsyncs,target=sync
  }
}

run 60
