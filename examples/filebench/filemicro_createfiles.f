# iobench's filemicro_createfiles (after filebench's published description: a fileset of which
# only part exists beforehand; one thread creates new files, writes each whole to its size and
# closes it, until a count of creates), scaled to a laptop: 2,000 files of 1 KiB, half
# preallocated, 800 creates, all in one directory.
# Run: iobench run filebench -d DIR file=examples/filebench/filemicro_createfiles.f

set $files=2000
set $creates=800
set $size=1k
set $block=1m

define fileset name=newfiles,path=/tmp,size=$size,entries=$files,dirwidth=100000,prealloc=50

define process name=creator,instances=1
{
  thread name=createthread,memsize=$block,instances=1
  {
    flowop createfile name=createfile1,filesetname=newfiles,fd=1
    flowop writewholefile name=fill,fd=1,iosize=$block
    flowop closefile name=close,fd=1
    flowop finishoncount name=enough,value=$creates,target=createfile1
  }
}

run 60
