/* proctype declared twice */
proctype worker() { skip }
proctype worker() { skip }

init { run worker() }
