int dlready_fake_symbol(void) { return 0; }
