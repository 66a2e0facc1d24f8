# iobench's webserver personality (after filebench's published "webserver" description: 1,000
# read-only files of 16 KiB mean in directories of 20, 100 threads each reading ten files whole
# and appending up to 16 KiB to a log), scaled to a laptop: 200 files, 4 threads. A thread holds
# its log open on fd 2 for the whole run, so the log set has a file per thread (with one file, as
# in filebench's own, the other threads wait for it all run).

set $files=200
set $width=20
set $size=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $threads=4
set $block=1m
set $append=16k

define fileset name=htdocs,path=/tmp,size=$size,entries=$files,dirwidth=$width,prealloc=100,readonly
define fileset name=weblog,path=/tmp,size=$size,entries=$threads,dirwidth=$width,prealloc

define process name=httpd,instances=1
{
  thread name=handler,memsize=10m,instances=$threads
  {
    flowop openfile name=open1,filesetname=htdocs,fd=1
    flowop readwholefile name=read1,fd=1,iosize=$block
    flowop closefile name=close1,fd=1
    flowop openfile name=open2,filesetname=htdocs,fd=1
    flowop readwholefile name=read2,fd=1,iosize=$block
    flowop closefile name=close2,fd=1
    flowop openfile name=open3,filesetname=htdocs,fd=1
    flowop readwholefile name=read3,fd=1,iosize=$block
    flowop closefile name=close3,fd=1
    flowop openfile name=open4,filesetname=htdocs,fd=1
    flowop readwholefile name=read4,fd=1,iosize=$block
    flowop closefile name=close4,fd=1
    flowop openfile name=open5,filesetname=htdocs,fd=1
    flowop readwholefile name=read5,fd=1,iosize=$block
    flowop closefile name=close5,fd=1
    flowop appendfilerand name=appendlog,filesetname=weblog,iosize=$append,fd=2
  }
}

run 60
