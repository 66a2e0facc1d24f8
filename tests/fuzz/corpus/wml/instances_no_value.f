define process name=p,instances { thread name=t { flowop delay name=d,value=0.01 } }
