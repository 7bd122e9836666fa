"""A Gaussian mixture fitted by EM, the same code on NumPy and CuPy
(cupy.get_array_module), after CuPy's examples/gmm (MIT licence).

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
def train_gmm(X, max_iter, tol, means, covariances):
    xp = cupy.get_array_module(X)
    lower_bound = -numpy.inf
    converged = False
    weights = xp.array([0.5, 0.5], dtype=numpy.float32)
    inv_cov = 1 / xp.sqrt(covariances)
    for n_iter in range(max_iter):
        prev_lower_bound = lower_bound
        log_prob_norm, log_resp = e_step(X, inv_cov, means, weights)
        weights, means, covariances = m_step(X, xp.exp(log_resp))
        inv_cov = 1 / xp.sqrt(covariances)
        lower_bound = log_prob_norm
        change = lower_bound - prev_lower_bound
        if abs(change) < tol:
            converged = True
            break
    if not converged:
        print('Failed to converge. Increase max-iter or tol.')
    return inv_cov, means, weights, covariances

def e_step(X, inv_cov, means, weights):
    xp = cupy.get_array_module(X)
    weighted_log_prob = estimate_log_prob(X, inv_cov, means) + xp.log(weights)
    log_prob_norm = xp.log(xp.sum(xp.exp(weighted_log_prob), axis=1))
    log_resp = weighted_log_prob - log_prob_norm[:, None]
    return xp.mean(log_prob_norm), log_resp

def m_step(X, resp):
    xp = cupy.get_array_module(X)
    nk = xp.sum(resp, axis=0)
    means = xp.dot(resp.T, X) / nk[:, None]
    X2 = xp.dot(resp.T, X * X) / nk[:, None]
    covariances = X2 - means ** 2
    return nk / len(X), means, covariances

def estimate_log_prob(X, inv_cov, means):
    xp = cupy.get_array_module(X)
    n_features = X.shape[1]
    log_det = xp.sum(xp.log(inv_cov), axis=1)
    precisions = inv_cov ** 2
    log_prob = xp.sum((means ** 2 * precisions), 1) - 2 * xp.dot(X, (means * precisions).T) + xp.dot(X ** 2, precisions.T)
    return -0.5 * (n_features * xp.log(2 * numpy.pi) + log_prob) + log_det

def predict(X, inv_cov, means, weights):
    xp = cupy.get_array_module(X)
    log_prob = estimate_log_prob(X, inv_cov, means)
    return (log_prob + xp.log(weights)).argmax(axis=1)

def calc_acc(X_train, y_train, X_test, y_test, max_iter, tol, means, covariances):
    xp = cupy.get_array_module(X_train)
    inv_cov, means, weights, cov = train_gmm(X_train, max_iter, tol, means, covariances)
    y_train_pred = predict(X_train, inv_cov, means, weights)
    train_accuracy = xp.mean(y_train_pred == y_train) * 100
    y_test_pred = predict(X_test, inv_cov, means, weights)
    test_accuracy = xp.mean(y_test_pred == y_test) * 100
    return float(train_accuracy), float(test_accuracy), cov

numpy.random.seed(0)
num = 20000
one_x = numpy.ones((num, 2), dtype=numpy.float32)
one_y = numpy.ones(num, dtype=numpy.int32)
mean1 = numpy.array([-1, -1]); cov1 = numpy.array([[1, 0], [0, 1]])
mean2 = numpy.array([1, 1]); cov2 = numpy.array([[1, 0], [0, 1]])
X_train = numpy.r_[numpy.random.multivariate_normal(mean1, cov1, num // 2), numpy.random.multivariate_normal(mean2, cov2, num // 2)].astype(numpy.float32)
y_train = numpy.r_[numpy.zeros(num // 2), numpy.ones(num // 2)].astype(numpy.int32)
X_test = X_train[::3]; y_test = y_train[::3]
means = numpy.random.rand(2, 2).astype(numpy.float32)
covs = numpy.random.rand(2, 2).astype(numpy.float32)
a_cpu = calc_acc(X_train, y_train, X_test, y_test, 30, 1e-3, means, covs)
Xg, yg, Xtg, ytg = map(cupy.asarray, (X_train, y_train, X_test, y_test))
a_gpu = calc_acc(Xg, yg, Xtg, ytg, 30, 1e-3, cupy.asarray(means), cupy.asarray(covs))
assert abs(a_cpu[0] - a_gpu[0]) < 0.5, (a_cpu, a_gpu)
print("gmm OK")
