ltl one_leader { [] (leaders <= 1) }
