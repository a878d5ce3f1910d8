/* The floor bench/windows_doctor.sh measures dlready.exe against: a Windows program that does
 * nothing, started the same way under wine. */
int main(void) { return 0; }
