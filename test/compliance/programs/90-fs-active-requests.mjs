// process.getActiveResourcesInfo() and fs requests on the real disk (the simulation holds each
// call and delivers its completion in an event of its own): the disk compliance program, run
// here by the compliance suite, plainly and under the simulator with the default real disk.
import '../../compliance-disk/programs/09-active-requests.mjs';
