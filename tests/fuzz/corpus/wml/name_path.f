define fileset name=../esc,entries=1,dirwidth=2,size=1k
define file name=/tmp/x
define file name=a/b
