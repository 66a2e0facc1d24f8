set $a=cvar(type=gamma,parameters=mean:5;gamma:0.5)
define fileset name=s,size=$a,entries=9,dirwidth=3,dirgamma=0,psrun
