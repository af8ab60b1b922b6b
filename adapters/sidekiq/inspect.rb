# drainsim's Sidekiq inspector: where Redis holds each drainsim job at the end of a run,
# through Sidekiq's documented API (Sidekiq::Queue, ScheduledSet, RetrySet, DeadSet,
# Workers), and the versions measured. Prints one JSON object (adapters/README.md).
require "json"
require "sidekiq"
require "sidekiq/api"

jobs = {}
job_of = ->(args) { args.is_a?(Array) ? args.first.to_s : nil }
Sidekiq::Queue.all.each { |q| q.each { |j| jobs[job_of.(j.args)] = "available" } }
Sidekiq::ScheduledSet.new.each { |j| jobs[job_of.(j.args)] = "scheduled" }
Sidekiq::RetrySet.new.each { |j| jobs[job_of.(j.args)] = "scheduled" }
Sidekiq::DeadSet.new.each { |j| jobs[job_of.(j.args)] = "discarded" }
# A process's identity is "hostname:pid:nonce" (Sidekiq::Util#identity). A SIGKILLed
# process's last heartbeat stays in Redis for its 60 s TTL, with the work it had then: it
# holds nothing now, so only living processes' work counts.
alive = lambda do |identity|
  Process.kill(0, Integer(identity.split(":")[-2]))
  true
rescue Errno::ESRCH
  false
rescue Errno::EPERM, ArgumentError
  true
end
Sidekiq::Workers.new.each do |process, _thread, work|
  next unless alive.(process)
  payload = work["payload"]
  payload = JSON.parse(payload) if payload.is_a?(String)
  jobs[job_of.(payload["args"])] = "active"
end
jobs.delete(nil)
redis = Sidekiq.redis { |c| c.info["redis_version"] }
puts JSON.generate({versions: {sidekiq: Sidekiq::VERSION, redis: redis, ruby: RUBY_VERSION,
                               "redis-rb": Redis::VERSION},
                    jobs: jobs})
