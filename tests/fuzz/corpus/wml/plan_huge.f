define fileset name=s,entries=100000000,dirwidth=2,size=1t
define process name=p {thread name=t {flowop delay name=d,value=1}}
