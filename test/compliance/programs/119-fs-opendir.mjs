// fs.opendir on the real disk: the disk compliance program (which runs on a simulated disk)
// run as it is, under --import dst-runtime/register with the real disk.
import '../../compliance-disk/programs/15-opendir.mjs';
