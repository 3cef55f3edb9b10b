package terminals

// Kill ends a process's following as a SIGKILL would: no lease released.
func Kill(s *Service) {
	f := s.follow
	f.mu.Lock()
	if !f.running {
		f.mu.Unlock()
		return
	}
	f.running = false
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	cancel()
	<-done
}
