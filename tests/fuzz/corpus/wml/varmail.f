# iobench's varmail personality: a mail server's spool (after filebench's published "varmail"
# description: 1,000 files of 16 KiB mean in one flat directory, 16 threads; each delivery
# deletes a message, creates one and appends to it with fsync, then reads messages whole and
# appends to one with fsync), scaled to a laptop: 200 files, 4 threads.

set $files=200
set $size=cvar(type=cvar-gamma,parameters=mean:16384;gamma:1.5)
set $threads=4
set $block=1m
set $append=16k

# A dirwidth as large as the file count keeps every file in one directory.
define fileset name=spool,path=/tmp,size=$size,entries=$files,dirwidth=1000000,prealloc=80

define process name=mailserver,instances=1
{
  thread name=mailer,memsize=10m,instances=$threads
  {
    flowop deletefile name=delete,filesetname=spool
    flowop createfile name=createfile1,filesetname=spool,fd=1
    flowop appendfilerand name=appendnew,iosize=$append,fd=1
    flowop fsync name=fsyncnew,fd=1
    flowop closefile name=closenew,fd=1
    flowop openfile name=openread,filesetname=spool,fd=1
    flowop readwholefile name=readmsg,fd=1,iosize=$block
    flowop appendfilerand name=appendread,iosize=$append,fd=1
    flowop fsync name=fsyncread,fd=1
    flowop closefile name=closeread,fd=1
    flowop openfile name=openonly,filesetname=spool,fd=1
    flowop readwholefile name=readonly,fd=1,iosize=$block
    flowop closefile name=closeonly,fd=1
  }
}

run 60
