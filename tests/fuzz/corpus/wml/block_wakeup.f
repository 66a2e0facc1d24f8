define process name=sleepers {thread name=t,instances=2 {flowop block name=blk}}
define process name=waker {thread name=t {flowop wakeup name=wake,target=blk
flowop delay name=d,value=0.01}}
run 1
