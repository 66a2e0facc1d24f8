# iobench's fileserver personality for filebench's Workload Model Language.
# A file server's mix (after filebench's published "fileserver" description: 10,000 files of
# 128 KiB mean in directories of 20, 50 threads, whole-file writes and reads of 1 MiB blocks,
# 16 KiB appends), scaled to a laptop: 400 files, 4 threads.
# Run: iobench run filebench -d DIR file=examples/filebench/fileserver.f time_limit=2s

set $files=400
set $width=20
set $size=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)
set $threads=4
set $block=1m
set $append=16k

define fileset name=fsfiles,path=/tmp,size=$size,entries=$files,dirwidth=$width,prealloc=80

define process name=server,instances=1
{
  thread name=worker,memsize=10m,instances=$threads
  {
    flowop createfile name=createfile1,filesetname=fsfiles,fd=1
    flowop writewholefile name=writewhole,srcfd=1,fd=1,iosize=$block
    flowop closefile name=closenew,fd=1
    flowop openfile name=openappend,filesetname=fsfiles,fd=1
    flowop appendfilerand name=append,iosize=$append,fd=1
    flowop closefile name=closeappend,fd=1
    flowop openfile name=openread,filesetname=fsfiles,fd=1
    flowop readwholefile name=readwhole,fd=1,iosize=$block
    flowop closefile name=closeread,fd=1
    flowop deletefile name=delete,filesetname=fsfiles
    flowop statfile name=stat,filesetname=fsfiles
  }
}

echo "iobench fileserver loaded"
run 60
