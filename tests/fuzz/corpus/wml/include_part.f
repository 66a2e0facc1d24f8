set $x=1
include "part.f"
define fileset name=s,size=$part,entries=2,dirwidth=2
define process name=p { thread name=t { flowop delay name=d,value=1 } }
run 1
