# sleep, psrun, lathist, nousestats, cached, debug (issue 31)
set $t=1
set $c=false
debug 1
set mode nousestats
enable lathist
define fileset name=s,path=/tmp,size=4k,entries=4,dirwidth=2,prealloc,cached=$c
define file name=f,path=/tmp,size=4k,prealloc,cached
sleep $t
create files
sleep 2
define process name=p { thread name=t,memsize=4k {
  flowop read name=r,filename=f,iosize=1k,iters=2k
  flowop delay name=d,value=1 } }
psrun -5 20
