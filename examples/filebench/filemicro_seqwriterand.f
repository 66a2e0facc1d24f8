# iobench's filemicro_seqwriterand (after filebench's published description: one thread appends
# blocks of random size below 8 KiB to an empty file until a count of appends), scaled to a
# laptop: 4,096 appends.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_seqwriterand.f

set $iosize=8k
set $appends=4096

define file name=bigfile,path=/tmp,size=0,prealloc

define process name=writer,instances=1
{
  thread name=writethread,memsize=$iosize,instances=1
  {
    flowop appendfilerand name=randappend,filename=bigfile,fd=1,iosize=$iosize
    flowop finishoncount name=enough,value=$appends,target=randappend
  }
}

run 60
