# drainsim's Sidekiq enqueuer: reads one job per line on stdin, "JOB DURATION_S
# [FAIL_AFTER_S]", and pushes it at once through Sidekiq's client (Sidekiq::Client.push)
# onto the queue "default" with the retry count in DRAINSIM_RETRY (default 25, Sidekiq's);
# drainsim writes each line at the job's arrival time. Prints "enqueued JOB JID" per job.
require "sidekiq"

retry_count = Integer(ENV.fetch("DRAINSIM_RETRY", "25"))
STDOUT.sync = true
STDIN.each_line do |line|
  job, duration, fail_after = line.split
  next if job.nil?
  args = [Integer(job), Float(duration)]
  args << Float(fail_after) if fail_after
  jid = Sidekiq::Client.push("class" => "Drainsim::Job", "queue" => "default", "args" => args,
                             "retry" => retry_count)
  puts "enqueued #{job} #{jid}"
end
