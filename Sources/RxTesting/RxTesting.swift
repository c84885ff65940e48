import RxCore

/// Namespace of the testing helpers.
public enum RxTestingModule {}
