// The tests expect replay commands without TZ= or LC_ALL= assignments, which dst-runtime adds
// when the machine's time zone is not UTC or its locale not en-US: pin both for the programs the
// tests start (and this process's own Date), whatever the machine's settings.
// test/hosts/time-zone.test.mjs sets other values where it needs them.
process.env.TZ = 'UTC';
process.env.LC_ALL = 'C.UTF-8';
