# iobench's oltp personality: an Oracle-style database (after filebench's published "oltp"
# description: a log writer appending 256 KiB asynchronous writes to the redo log, 10 database
# writers each issuing a batch of 2 KiB asynchronous random writes to the datafiles and waiting
# for them, and 200 shadow processes doing 2 KiB random reads of the datafiles, each posting to
# the writers' semaphores so that the writers follow the readers' pace), scaled to a laptop:
# 16 datafiles of 4 MiB, a 4 MiB log, 4 writers and 8 shadows; the semaphore counts are scaled
# with them. aiowrite goes through iobench's io_uring engine (param aio_engine).

set $dir=/tmp
set $eventrate=0
set $iosize=2k
set $logiosize=256k
set $nshadows=8
set $ndbwriters=4
set $usermode=20000
set $filesize=4m
set $logfilesize=4m
set $nfiles=16
set $nlogfiles=1
set $workingset=2m
set $memperthread=1m
set $writebatch=10

eventgen rate=$eventrate

# Each datafile is held by the thread that opened it: entries cover the writers and shadows.
define fileset name=datafiles,path=$dir,size=$filesize,entries=$nfiles,dirwidth=1024,prealloc=100,reuse
define fileset name=logfile,path=$dir,size=$logfilesize,entries=$nlogfiles,dirwidth=1024,prealloc=100,reuse

define process name=lgwr,instances=1
{
  thread name=lgwr,memsize=$memperthread
  {
    flowop aiowrite name=lg-write,filesetname=logfile,iosize=$logiosize,random,dsync
    flowop aiowait name=lg-aiowait
    flowop semblock name=lg-block,value=320,highwater=100
  }
}

define process name=dbwr,instances=$ndbwriters
{
  thread name=dbwr,memsize=$memperthread
  {
    flowop aiowrite name=dbwrite-a,filesetname=datafiles,iosize=$iosize,workingset=$workingset,random,iters=$writebatch,dsync
    flowop hog name=dbwr-hog,value=10000
    flowop semblock name=dbwr-block,value=100,highwater=200
    flowop aiowait name=dbwr-aiowait
  }
}

define process name=shadow,instances=$nshadows
{
  thread name=shadow,memsize=$memperthread
  {
    flowop read name=shadowread,filesetname=datafiles,iosize=$iosize,workingset=$workingset,random
    flowop hog name=shadowhog,value=$usermode
    flowop sempost name=shadow-post-lg,value=1,target=lg-block,blocking
    flowop sempost name=shadow-post-dbwr,value=1,target=dbwr-block,blocking
    flowop eventlimit name=random-rate
  }
}

echo "iobench oltp personality loaded"

run 60
