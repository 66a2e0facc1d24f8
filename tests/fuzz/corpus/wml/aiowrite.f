define file name=log,size=1m,prealloc
define process name=lgwr {thread name=t,memsize=256k {
  flowop aiowrite name=lw,filename=log,iosize=256k,workingset=512k,random,dsync,directio
  flowop aiowait name=wait
}}
run 1
