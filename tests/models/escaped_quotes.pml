/* Strings with escaped quotes and backslashes, as spin's lexer reads them: `\"` does not
 * end a string. The printf text appears in the trail of the violation. */
byte n;

active [2] proctype Talker()
{
	printf("say \"%d\" \\ done\n", _pid);
	n++;
	assert(n < 2)
}
