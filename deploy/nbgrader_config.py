# The class's exchange on the shared volume (deploy/values.yaml mounts it here) and its course id.
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "specdec"
c.Exchange.root = "/srv/nbgrader/exchange"
