byte k;
proctype W() { accept: k < 2 -> k++; accept_b: k > 0 -> k-- }
init { byte i; do :: i < 3 -> atomic { run W(); i++ } :: i == 3 -> break od }
ltl t { [] (k <= 2) }
ltl u { <>[] (k == 0) }
