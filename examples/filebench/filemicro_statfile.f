# iobench's filemicro_statfile (after filebench's published description: a preallocated
# fileset whose files several threads stat in turn for the run's length), scaled to a laptop:
# 1,000 files of 4 KiB in directories of about 20, 4 threads.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_statfile.f time_limit=2s

set $files=1000
set $width=20
set $size=4k
set $threads=4

define fileset name=statfiles,path=/tmp,size=$size,entries=$files,dirwidth=$width,prealloc

define process name=examiner,instances=1
{
  thread name=statthread,memsize=1m,instances=$threads
  {
    flowop statfile name=stat,filesetname=statfiles
  }
}

run 60
