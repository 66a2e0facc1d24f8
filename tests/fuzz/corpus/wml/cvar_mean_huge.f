set $s=cvar(type=cvar-gamma,parameters=mean:1e300)
define fileset name=s,entries=10,dirwidth=2,size=$s
