-- hot.lua: a hot loop with branches for Debian's luajit (tests/runtimes_test.py):
-- a root trace, side traces for its exits, their exits patched.
local n = tonumber(arg[1]) or 3000
local s = 0
for i = 1, n do
  if i % 3 == 0 then s = s + i elseif i % 5 == 0 then s = s - 1 else s = s + 1 end
end
print(s)
