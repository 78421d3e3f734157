chan c = [0] of { byte };
byte n;
active proctype A() { do :: c!1 -> n = (n + 1) % 3 od }
active proctype B() { byte v; accept: do :: c?v :: atomic { n == 2 -> c?v } od }
ltl r { [] (n < 3) }
ltl s { <> (n == 2) }
