define file name=f,size=1k,prealloc
define process name=p {thread name=t {flowop appendfile name=a,filesetname=f,iosize=1k
flowop delay name=d,value=0.1}}
run 2
