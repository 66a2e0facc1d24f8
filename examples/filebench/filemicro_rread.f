# iobench's filemicro_rread (after filebench's published description: one thread reads one
# large file at random 2 KiB offsets until a byte count is read), scaled to a laptop: a 32 MiB
# file, 8 MiB read.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_rread.f

set $filesize=32m
set $iosize=2k
set $bytes=8m

define file name=bigfile,path=/tmp,size=$filesize,prealloc

define process name=reader,instances=1
{
  thread name=readthread,memsize=1m,instances=1
  {
    flowop read name=randread,filename=bigfile,fd=1,iosize=$iosize,random
    flowop finishonbytes name=enough,value=$bytes,target=randread
  }
}

run 60
