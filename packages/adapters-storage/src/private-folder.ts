/**
 * The mode of folders the service creates for its data (the SQLite file's folder, the blob root and
 * its folders): the service's user only, whatever the umask. They hold every key's reference voices,
 * faces and videos, and the SIP digests (an HA1 answers a digest challenge as the password would), so
 * other users of the machine must not read them. A folder that already exists keeps the operator's mode.
 */
export const PRIVATE_FOLDER = 0o700;
