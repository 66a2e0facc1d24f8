# iobench's filemicro_delete (after filebench's published description: a fully preallocated
# fileset of 16 KiB files, several threads deleting files until a count of deletes), scaled to
# a laptop: 2,000 files, 4 threads, 1,000 deletes in all.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_delete.f

set $files=2000
set $deletes=1000
set $size=16k
set $width=100
set $threads=4

define fileset name=oldfiles,path=/tmp,size=$size,entries=$files,dirwidth=$width,prealloc

define process name=deleter,instances=1
{
  thread name=deletethread,memsize=1m,instances=$threads
  {
    flowop deletefile name=delete,filesetname=oldfiles
    # Without a target: the deletes of all threads together.
    flowop finishoncount name=enough,value=$deletes
  }
}

run 60
