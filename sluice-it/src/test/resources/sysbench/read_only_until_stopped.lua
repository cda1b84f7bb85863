-- oltp_read_only that the test ends when it is done changing Sluice: each thread stops after
-- the event during which the file named by SYSBENCH_STOP_FILE appeared, and sysbench then prints
-- its usual report (a signal would end it without one). --time stays as a safety limit.
require("oltp_read_only")

local read_only_event = event
local stop_file = os.getenv("SYSBENCH_STOP_FILE")

function event()
   read_only_event()
   local f = stop_file and io.open(stop_file, "r")
   if f then
      f:close()
      return true
   end
end
