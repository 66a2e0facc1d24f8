# iobench's filemicro_create (after filebench's published description: one thread grows one
# empty file with 1 MiB appends until a count is reached, measuring the cost of allocating new
# blocks), scaled to a laptop: 32 appends, 32 MiB.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_create.f

set $block=1m
set $appends=32

define file name=growing,path=/tmp,size=0,prealloc

define process name=grower,instances=1
{
  thread name=appender,memsize=$block,instances=1
  {
    flowop appendfile name=append,filename=growing,fd=1,iosize=$block
    flowop finishoncount name=enough,value=$appends,target=append
  }
}

run 60
