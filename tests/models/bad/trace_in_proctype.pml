/* trace is declared at the top level: inside a proctype it is a syntax
 * error. */
chan c = [1] of { byte };
active proctype P() {
	trace { c!1 }
}
