# drainsim's Sidekiq enqueuer: reads one job per line on stdin, "JOB DURATION_S
# [FAIL_1 FAIL_2 ...]" (FAIL_k: "-" or the seconds after which attempt k fails), and
# pushes it at once through Sidekiq's client (Sidekiq::Client.push) onto DRAINSIM_QUEUE
# with DRAINSIM_MAX_ATTEMPTS - 1 retries (Sidekiq's default, 25, without it); drainsim
# writes each line at the job's arrival time. Prints "enqueued JOB" per job.
require "sidekiq"

queue = ENV.fetch("DRAINSIM_QUEUE", "default")
retries = Integer(ENV.fetch("DRAINSIM_MAX_ATTEMPTS", "26")) - 1
STDOUT.sync = true
STDIN.each_line do |line|
  job, duration, *fails = line.split
  next if job.nil?
  args = [Integer(job), Float(duration), fails.map { |f| f == "-" ? nil : Float(f) }]
  Sidekiq::Client.push("class" => "Drainsim::Job", "queue" => queue, "args" => args,
                       "retry" => retries)
  puts "enqueued #{job}"
end
