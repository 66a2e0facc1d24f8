# iobench's videoserver personality (after filebench's published "videoserver" description: a
# set of active videos that reader threads stream sequentially, each held to a bandwidth by the
# event generator, and a set of passive videos one writer thread replaces in turn, waiting
# between replacements), scaled to a laptop: 8 active and 4 passive videos of 4 MiB, 4 readers
# held together to 32 MiB/s (bwlimit: one event per MiB), one writer every second (filebench takes whole seconds in set).
# Run: iobench run filebench -d DIR file=examples/filebench/videoserver.f time_limit=2s

set $videosize=4m
set $active=8
set $passive=4
set $readers=4
set $block=256k
set $mibpersec=32
set $writegap=1

eventgen rate=$mibpersec

# A dirwidth as large as the file count keeps each set in one directory.
define fileset name=activevids,path=/tmp,size=$videosize,entries=$active,dirwidth=1000,prealloc
define fileset name=passivevids,path=/tmp,size=$videosize,entries=$passive,dirwidth=1000,prealloc=50

define process name=vidwriter,instances=1
{
  thread name=replacer,memsize=$block,instances=1
  {
    flowop deletefile name=dropvid,filesetname=passivevids
    flowop createfile name=newvid,filesetname=passivevids,fd=1
    flowop writewholefile name=writevid,fd=1,iosize=$block
    flowop closefile name=closevid,fd=1
    flowop delay name=writegap,value=$writegap
  }
}

define process name=vidreaders,instances=1
{
  thread name=streamer,memsize=$block,instances=$readers
  {
    flowop read name=streamread,filesetname=activevids,fd=1,iosize=$block
    flowop bwlimit name=streamlimit,target=streamread
  }
}

run 60
