# iobench's filemicro_rwrite (after filebench's published description: one thread writes one
# large file at random 2 KiB offsets, without O_DSYNC, until a byte count is written), scaled to
# a laptop: a 32 MiB file, 8 MiB written.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_rwrite.f

set $filesize=32m
set $iosize=2k
set $bytes=8m

define file name=bigfile,path=/tmp,size=$filesize,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=1m,instances=1
  {
    flowop write name=randwrite,filename=bigfile,fd=1,iosize=$iosize,random
    flowop finishonbytes name=enough,value=$bytes,target=randwrite
  }
}

run 60
