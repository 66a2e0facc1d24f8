# iobench's webproxy personality (after filebench's published "webproxy" description: a proxy
# cache of 10,000 files of 16 KiB mean in one flat directory, 100 threads each deleting a cached
# file, creating and writing a new one, reading five whole, and appending up to 16 KiB to a log),
# scaled to a laptop: 200 files, 4 threads. As in iobench's webserver, a thread holds its log
# open on fd 2 for the whole run, so the log set has a file per thread.
# Run: iobench run filebench -d DIR file=examples/filebench/webproxy.f time_limit=2s

set $files=200
set $width=1000000
set $size=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $threads=4
set $block=1m
set $append=16k

define fileset name=cache,path=/tmp,size=$size,entries=$files,dirwidth=$width,prealloc=80
define fileset name=proxylog,path=/tmp,size=0,entries=$threads,dirwidth=$width,prealloc

define process name=proxy,instances=1
{
  thread name=proxycache,memsize=10m,instances=$threads
  {
    flowop deletefile name=evict,filesetname=cache
    flowop createfile name=fetch,filesetname=cache,fd=1
    flowop writewholefile name=store,srcfd=1,fd=1,iosize=$block
    flowop closefile name=closestore,fd=1
    flowop openfile name=open1,filesetname=cache,fd=1
    flowop readwholefile name=read1,fd=1,iosize=$block
    flowop closefile name=close1,fd=1
    flowop openfile name=open2,filesetname=cache,fd=1
    flowop readwholefile name=read2,fd=1,iosize=$block
    flowop closefile name=close2,fd=1
    flowop openfile name=open3,filesetname=cache,fd=1
    flowop readwholefile name=read3,fd=1,iosize=$block
    flowop closefile name=close3,fd=1
    flowop openfile name=open4,filesetname=cache,fd=1
    flowop readwholefile name=read4,fd=1,iosize=$block
    flowop closefile name=close4,fd=1
    flowop openfile name=open5,filesetname=cache,fd=1
    flowop readwholefile name=read5,fd=1,iosize=$block
    flowop closefile name=close5,fd=1
    flowop appendfilerand name=appendlog,filesetname=proxylog,iosize=$append,fd=2
  }
}

run 60
