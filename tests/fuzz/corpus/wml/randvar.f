set $io = randvar(type=uniform, min=1k, mean=8k, round=1k)
define randvar name=$size, type=tabular, min=4k, round=4k, randtable =
  {{50, 4k, 8k}, {50, 8k, 16k}}
define fileset name=s,size=$size,entries=20,dirwidth=10,prealloc
define process name=p {thread name=t,memsize=16k {
  flowop appendfile name=a,filesetname=s,fd=1,iosize=$io
}}
run 1
