/* Inline macros with parameters, nested inline calls, and inlines that
 * declare nothing but manipulate their arguments (a swap and a bounded
 * sort of a small array). */
byte arr[4] = 0;

inline swap(x, y) {
	tmp = x; x = y; y = tmp
}

inline order(i, j) {
	if
	:: arr[i] > arr[j] -> swap(arr[i], arr[j])
	:: else -> skip
	fi
}

inline pass(n) {
	for (k : 0 .. n - 2) {
		order(k, k + 1)
	}
}

inline fill(a, b, c, d) {
	arr[0] = a; arr[1] = b; arr[2] = c; arr[3] = d
}

active proctype Sorter()
{
	byte tmp, k, r;
	fill(9, 3, 7, 1);
	for (r : 1 .. 3) {
		pass(4)
	}
	assert(arr[0] <= arr[1] && arr[1] <= arr[2] && arr[2] <= arr[3]);
	assert(arr[0] == 1 && arr[3] == 9)
}
