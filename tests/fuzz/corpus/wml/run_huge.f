define process name=p {thread name=t {flowop delay name=d,value=1}}
run 99999999999
