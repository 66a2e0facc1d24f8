# iobench's filemicro_rwritedsync (after filebench's published description: one thread writes
# one large file at random 2 KiB offsets through O_DSYNC until a count of writes), scaled to a
# laptop: a 32 MiB file, 256 writes.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_rwritedsync.f

set $filesize=32m
set $iosize=2k
set $writes=256

define file name=bigfile,path=/tmp,size=$filesize,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=1m,instances=1
  {
    flowop write name=syncwrite,filename=bigfile,fd=1,iosize=$iosize,random,dsync
    flowop finishoncount name=enough,value=$writes,target=syncwrite
  }
}

run 60
