# iobench's filemicro_seqread (after filebench's published description: one thread reads one
# large file sequentially in 1 MiB blocks, starting over at its end, for the run's length),
# scaled to a laptop: a 64 MiB file.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_seqread.f time_limit=2s

set $filesize=64m
set $iosize=1m

define file name=largefile,path=/tmp,size=$filesize,prealloc

define process name=reader,instances=1
{
  thread name=readthread,memsize=$iosize,instances=1
  {
    flowop read name=seqread,filename=largefile,fd=1,iosize=$iosize
  }
}

run 60
