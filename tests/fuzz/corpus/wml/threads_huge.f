define process name=p,instances=1024 {thread name=t,instances=4096,memsize=1g {flowop delay name=d,value=1}}
