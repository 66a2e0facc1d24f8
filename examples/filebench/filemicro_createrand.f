# iobench's filemicro_createrand (after filebench's published description: one thread grows an
# empty file with appends of random size below a bound, an fsync after every ten, until a byte
# count is passed), scaled to a laptop: appends below 1 MiB up to 32 MiB.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_createrand.f

set $maxappend=1m
set $bytes=32m
set $appendsperfsync=10

define file name=growing,path=/tmp,size=0,prealloc

define process name=grower,instances=1
{
  thread name=appender,memsize=$maxappend,instances=1
  {
    flowop appendfilerand name=append,filename=growing,fd=1,iosize=$maxappend,iters=$appendsperfsync
    flowop fsync name=sync,fd=1
    flowop finishonbytes name=enough,value=$bytes,target=append
  }
}

run 60
