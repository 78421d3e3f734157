/* 10^5 distinct invalid end states: each of three processes takes one of 47
 * options and blocks at that option's own guard for good, so every combination of
 * blocked locations is an invalid end state of its own (47^3 = 103823). The
 * options are written out one per line. Written for the git rmc benchmarks. */
byte go;

active [3] proctype Stuck()
{
	if
	:: true -> go == 1
	:: true -> go == 2
	:: true -> go == 3
	:: true -> go == 4
	:: true -> go == 5
	:: true -> go == 6
	:: true -> go == 7
	:: true -> go == 8
	:: true -> go == 9
	:: true -> go == 10
	:: true -> go == 11
	:: true -> go == 12
	:: true -> go == 13
	:: true -> go == 14
	:: true -> go == 15
	:: true -> go == 16
	:: true -> go == 17
	:: true -> go == 18
	:: true -> go == 19
	:: true -> go == 20
	:: true -> go == 21
	:: true -> go == 22
	:: true -> go == 23
	:: true -> go == 24
	:: true -> go == 25
	:: true -> go == 26
	:: true -> go == 27
	:: true -> go == 28
	:: true -> go == 29
	:: true -> go == 30
	:: true -> go == 31
	:: true -> go == 32
	:: true -> go == 33
	:: true -> go == 34
	:: true -> go == 35
	:: true -> go == 36
	:: true -> go == 37
	:: true -> go == 38
	:: true -> go == 39
	:: true -> go == 40
	:: true -> go == 41
	:: true -> go == 42
	:: true -> go == 43
	:: true -> go == 44
	:: true -> go == 45
	:: true -> go == 46
	:: true -> go == 47
	fi
}
