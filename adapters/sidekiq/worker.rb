# drainsim's Sidekiq adapter: the job class a real Sidekiq process runs under drainsim,
# and the lifecycle hooks that tell drainsim what the process is doing. Every event is
# one JSON line appended to DRAINSIM_EVENTS (O_APPEND, one write per line, so several
# processes can share the file):
#   {"t": unix seconds, "pid", "worker", "event": "ready" | "quiet" | "shutdown"}
#   {"t", "pid", "worker", "event": "start" | "end", "job", "jid", "attempt",
#    "outcome": "completed" | "failed" | "interrupted"}         (outcome on "end" only)
#   {"t", "pid", "worker", "event": "available", "job"}   (pushed back to its queue)
# Uses only Sidekiq's documented API (Sidekiq::Worker, configure_server, lifecycle
# events, Sidekiq::Shutdown, a fetch strategy in the :fetch option). Sidekiq reads
# REDIS_URL (here a unix:// socket URL).
require "json"
require "sidekiq"

module Drainsim
  EVENTS = File.open(ENV.fetch("DRAINSIM_EVENTS"), "a")
  EVENTS.sync = true
  WORKER = ENV.fetch("DRAINSIM_WORKER", "worker")

  def self.event(fields)
    line = JSON.generate({t: Process.clock_gettime(Process::CLOCK_REALTIME), pid: Process.pid,
                          worker: WORKER}.merge(fields))
    EVENTS.write(line + "\n")
  end

  # A drainsim job: sleeps `duration_s` seconds (the scenario's job duration), or fails
  # after fails[attempt - 1] seconds when that is a number.
  class Job
    include Sidekiq::Worker

    def perform(job, duration_s, fails = [])
      attempt = 1 + (@retry_count ? @retry_count + 1 : 0)
      fields = {job: job, jid: jid, attempt: attempt}
      Drainsim.event(fields.merge(event: "start"))
      fail_after_s = fails[attempt - 1]
      if fail_after_s && fail_after_s < duration_s
        sleep(fail_after_s)
        Drainsim.event(fields.merge(event: "end", outcome: "failed"))
        raise "drainsim: job #{job} fails as the scenario says"
      end
      sleep(duration_s)
      Drainsim.event(fields.merge(event: "end", outcome: "completed"))
    rescue Sidekiq::Shutdown
      Drainsim.event(fields.merge(event: "end", outcome: "interrupted"))
      raise
    end
  end
end

# Sidekiq's own fetch (BasicFetch), which at a hard shutdown (-t over) pushes the jobs still
# running back to their queues: said as "available" the moment they are back in Redis.
class DrainsimFetch < Sidekiq::BasicFetch
  def bulk_requeue(inprogress, options)
    super
    inprogress.each do |unit_of_work|
      Drainsim.event(event: "available", job: JSON.parse(unit_of_work.job)["args"][0])
    end
  end
end

# Sidekiq 6 passes the retry count to the job through the middleware chain; keep it.
class DrainsimRetryCount
  def call(worker, msg, _queue)
    worker.instance_variable_set(:@retry_count, msg["retry_count"])
    yield
  end
end

Sidekiq.configure_server do |config|
  config.server_middleware { |chain| chain.add DrainsimRetryCount }
  config.on(:startup) do
    # The launcher, made after :startup, takes the fetch strategy from the options.
    Sidekiq.options[:fetch] = DrainsimFetch.new(Sidekiq.options)
    Drainsim.event(event: "ready")
  end
  config.on(:quiet) { Drainsim.event(event: "quiet") }
  config.on(:shutdown) { Drainsim.event(event: "shutdown") }
end
