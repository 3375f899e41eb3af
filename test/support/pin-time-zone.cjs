// The tests expect replay commands without a TZ= assignment, which dst-runtime adds when the
// machine's time zone is not UTC: pin UTC for this process and the programs it starts, whatever
// the machine's zone. test/hosts/time-zone.test.mjs sets other zones where it needs them.
process.env.TZ = 'UTC';
