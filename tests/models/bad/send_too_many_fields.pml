/* too many fields in send */
chan c = [2] of { byte };

init {
	c!1, 2, 3
}
