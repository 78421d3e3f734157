/* The notrace forbids 1, 1, 2 as the first sends on c. Any other first
 * sends disarm it for good: what comes after never completes it. pan
 * also asks an armed notrace to be at an end where the system ends: P
 * stopping after 1 (or 1, 1) leaves it "not completed". */
chan c = [2] of { byte };
active proctype P() { do :: c!1 :: c!2 :: break od }
active proctype Q() { end: do :: c?_ od }
notrace { c!1; c!1; c!2 }
