// EXPECT: 3:4: annotation must be a whole statement inside a function body
#x
({)TRACE_RECORD("a");
