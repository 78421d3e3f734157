/* macro expansion uses an undeclared variable */
#define BUMP counter++
byte x;

init {
	x = 1;
	BUMP
}
